"""The ceiling: a bare FastAPI app with one route returning a constant JSON body.

Run it under the same uvicorn settings as `watchpost serve`; its requests/s is the most this
stack can do on the machine, which is what the Watchpost endpoints are compared against.
"""

from __future__ import annotations

import argparse

import uvicorn
from fastapi import FastAPI
from fastapi.responses import Response

BODY = b'{"data":{"id":"1","type":"ceiling","attributes":{"status":"ok"}}}'

app = FastAPI(title="ceiling")


@app.get("/")
async def constant() -> Response:
    return Response(BODY, media_type="application/json")


def main() -> None:
    parser = argparse.ArgumentParser(description="Serve the constant-body ceiling app.")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8001)
    parser.add_argument("--log-level", default="info")
    args = parser.parse_args()
    # The same uvicorn.run() arguments as watchpost.cli.cmd_serve.
    uvicorn.run(app, host=args.host, port=args.port, log_level=args.log_level, proxy_headers=True)


if __name__ == "__main__":
    main()
