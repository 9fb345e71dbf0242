"""A FastMCP server (the fastmcp version the mcp2 venv pins) on its stateful Streamable HTTP
transport, for the watchdog's proxy tests (healer/proxy): sessions live in the process's memory
and end after FastMCP's own idle timeout.

    python fastmcp_server.py [--port N] [--idle-ms N]

It serves the tools echo and count (a process-wide counter), and the admin API of
../tsservers/server.mjs that internal/testbed/tsserver reads: GET /admin/count, GET
/admin/sessions, POST /admin/forget. Stdout: "LISTENING http://127.0.0.1:PORT/mcp" once it
accepts connections. --port 0 picks a free port; a port given again after a kill is a restart
at the same URL. --idle-ms 0 keeps sessions until the process ends.
"""

import argparse
import socket

import anyio
import uvicorn
from fastmcp import FastMCP
from starlette.requests import Request
from starlette.responses import JSONResponse

mcp = FastMCP("fastmcp-test-server")
calls = {"count": 0}


@mcp.tool
def echo(text: str) -> str:
    """Returns its text."""
    return text


@mcp.tool
def count() -> str:
    """Counts its own calls in this process."""
    calls["count"] += 1
    return str(calls["count"])


def sessions(app):
    # FastMCP keeps the SDK's session manager on the /mcp route's ASGI app; the
    # sessions it holds are its _server_instances (FastMCP's own shutdown reads it too).
    for route in app.routes:
        manager = getattr(getattr(route, "endpoint", None), "session_manager", None)
        if manager is not None:
            return manager._server_instances
    return {}


def admin_routes(app):
    @mcp.custom_route("/admin/count", methods=["GET"])
    async def admin_count(_: Request):
        return JSONResponse({"count": calls["count"]})

    @mcp.custom_route("/admin/sessions", methods=["GET"])
    async def admin_sessions(_: Request):
        return JSONResponse(list(sessions(app())))

    @mcp.custom_route("/admin/forget", methods=["POST"])
    async def admin_forget(_: Request):
        held = sessions(app())
        gone = list(held.items())
        for sid, transport in gone:
            held.pop(sid, None)
            await transport.terminate()
        return JSONResponse({"forgotten": len(gone)})


async def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--idle-ms", type=int, default=0)
    opts = ap.parse_args()
    holder = {}
    admin_routes(lambda: holder["app"])
    idle = opts.idle_ms / 1000 if opts.idle_ms > 0 else None
    app = mcp.http_app(path="/mcp", session_idle_timeout=idle)
    holder["app"] = app
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", opts.port))
    server = uvicorn.Server(uvicorn.Config(app, log_level="info", lifespan="on"))
    async with anyio.create_task_group() as tg:
        tg.start_soon(server.serve, [sock])
        while not server.started:
            await anyio.sleep(0.01)
        print(f"LISTENING http://127.0.0.1:{sock.getsockname()[1]}/mcp", flush=True)


if __name__ == "__main__":
    anyio.run(main)
