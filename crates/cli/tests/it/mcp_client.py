"""A real MCP client (the Python `mcp` SDK from PyPI) driving `bflow mcp serve` over stdio.

Run by crates/cli/tests/it/mcp.rs with one JSON argument:
  {"command": ..., "args": [...], "env": {...}, "devtools": "http://127.0.0.1:PORT",
   "tool": MCP name, "query": ..., "missing_query": ..., "concurrent": N, "cancel": bool}
or, for just some calls in order, {"command", "args", "env", "calls": [[tool, args], ...]};
over Streamable HTTP, "url" (and "token") instead of "command", "args" and "env".
Prints one JSON report on stdout; the Rust test makes the assertions. Nothing here decides
pass or fail except a protocol failure (an exception), which the report carries as such.
"""

import json
import sys
import time
import urllib.request

import contextlib

import anyio
import httpx2
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client


@contextlib.asynccontextmanager
async def connect(config):
    """Stdio (`command`, `args`, `env`: the client starts the server) or Streamable HTTP
    (`url`, and `token` for the bearer header)."""
    if "url" in config:
        headers = {}
        if config.get("token"):
            headers["Authorization"] = "Bearer " + config["token"]
        async with httpx2.AsyncClient(headers=headers, timeout=120) as http:
            async with streamable_http_client(config["url"], http_client=http) as streams:
                yield streams[0], streams[1]
    else:
        params = StdioServerParameters(
            command=config["command"], args=config["args"], env=config.get("env")
        )
        async with stdio_client(params) as (read, write):
            yield read, write


def pages(devtools):
    """The browser's page targets, from its DevTools HTTP endpoint."""
    with urllib.request.urlopen(devtools + "/json/list", timeout=5) as answer:
        return [t for t in json.load(answer) if t.get("type") == "page"]


def dump(result):
    return result.model_dump(mode="json", by_alias=True, exclude_none=True)


async def main(config):
    report = {}
    async with connect(config) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            report["protocol_version"] = init.protocol_version
            listed = await session.list_tools()
            report["tools"] = [dump(t) for t in listed.tools]
            if "calls" in config:
                # Just these calls, in order: [[tool, arguments], ...].
                report["calls"] = [
                    dump(await session.call_tool(name, arguments))
                    for name, arguments in config["calls"]
                ]
                return report
            tool = config["tool"]

            progress = []

            async def on_progress(done, total, message):
                progress.append({"progress": done, "total": total, "message": message})

            started = time.monotonic()
            result = await session.call_tool(
                tool, {"query": config["query"]}, progress_callback=on_progress
            )
            report["call"] = dump(result)
            report["call_seconds"] = time.monotonic() - started
            report["progress"] = progress

            report["bad_input"] = dump(await session.call_tool(tool, {"query": 42}))
            report["unknown_input"] = dump(
                await session.call_tool(tool, {"query": "x", "colour": "red"})
            )

            if config.get("missing_query"):
                failed = await session.call_tool(tool, {"query": config["missing_query"]})
                report["replay_failure"] = dump(failed)

            n = config.get("concurrent", 0)
            if n:
                answers = [None] * n
                queries = config["concurrent_queries"]

                async def one(i):
                    answers[i] = dump(
                        await session.call_tool(tool, {"query": queries[i % len(queries)]})
                    )

                started = time.monotonic()
                async with anyio.create_task_group() as group:
                    for i in range(n):
                        group.start_soon(one, i)
                report["concurrent"] = answers
                report["concurrent_seconds"] = time.monotonic() - started

            if config.get("cancel"):
                # The calls' pages are the ones on the shop; a browser may also hold a spare
                # context's blank page, opened ahead of the next call.
                devtools, shop = config["devtools"], config["shop_origin"]

                def shop_pages():
                    return [p for p in pages(devtools) if p.get("url", "").startswith(shop)]

                cancel = {"shop_pages_before": len(shop_pages())}
                with anyio.CancelScope() as scope:

                    async def watch():
                        # Cancel once the call's page is on the shop (its replay is running).
                        deadline = time.monotonic() + 30
                        while not shop_pages():
                            if time.monotonic() > deadline:
                                cancel["never_started"] = True
                                break
                            await anyio.sleep(0.02)
                        cancel["shop_pages_during"] = len(shop_pages())
                        cancel["cancelled_at"] = time.monotonic()
                        scope.cancel()

                    async with anyio.create_task_group() as group:
                        group.start_soon(watch)
                        await session.call_tool(tool, {"query": config["missing_query"]})
                        cancel["finished_first"] = True
                # The page goes once the server has stopped the replay: how long that takes.
                deadline = time.monotonic() + 30
                while shop_pages() and time.monotonic() < deadline:
                    await anyio.sleep(0.02)
                cancel["shop_pages_after"] = len(shop_pages())
                cancel["seconds_to_no_page"] = time.monotonic() - cancel.get(
                    "cancelled_at", time.monotonic()
                )
                # The server still answers after a cancelled call.
                after = await session.call_tool(tool, {"query": config["query"]})
                cancel["next_call"] = dump(after)
                cancel["shop_pages_at_end"] = len(shop_pages())
                report["cancel"] = cancel
    return report


if __name__ == "__main__":
    print(json.dumps(anyio.run(main, json.loads(sys.argv[1]))))
