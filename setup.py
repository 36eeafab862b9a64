"""The one C module of Watchpost (MessagePack ingestion's native path, logs/fast_columns.py);
everything else about the package is in pyproject.toml. It is optional: without a C compiler
the install goes on without it, and every body takes the Python path."""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "watchpost.logs._msgpack_columns",
            ["src/watchpost/logs/_msgpack_columns.c"],
            extra_compile_args=["-O2"],
            optional=True,
        )
    ]
)
