"""The operator console: server-rendered pages (Jinja2) that call the same domain services as
the API. Reading and every form work without JavaScript; console.js only enhances (live
updates, confirmations, copy buttons). The domains never import this package."""
