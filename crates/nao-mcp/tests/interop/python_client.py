"""Interop: the official Python `mcp` client against the nao-mcp binary.

The server runs with the example config file (the demo shop, a policy and two named queries).
Over stdio the client lists the tools, runs a query, pages it, reads a table resource, checks
that a write is refused as a tool error, and finds the named query `orders_by_status` with its
input schema, calls it, and checks that an injection attempt through its parameter finds
nothing; over streamable HTTP it lists the tools, runs a query and calls the named query.
Usage: python_client.py PATH_TO_NAO_MCP PATH_TO_CONFIG
"""

import asyncio
import socket
import subprocess
import sys
import time

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client


def attr(obj, snake: str, camel: str):
    """mcp 2.x names fields in snake_case, 1.x in camelCase: accept both."""
    return getattr(obj, snake) if hasattr(obj, snake) else getattr(obj, camel)


def is_error(result) -> bool:
    return bool(attr(result, "is_error", "isError"))


def structured(result) -> dict:
    return attr(result, "structured_content", "structuredContent")


def text(result) -> str:
    return "".join(getattr(block, "text", "") for block in result.content)


async def exercise(session: ClientSession, full: bool) -> None:
    await session.initialize()
    tools = await session.list_tools()
    names = sorted(tool.name for tool in tools.tools)
    assert "execute_sql" in names, names
    execute_sql = next(tool for tool in tools.tools if tool.name == "execute_sql")
    assert execute_sql.annotations and attr(execute_sql.annotations, "read_only_hint", "readOnlyHint") is True
    result = await session.call_tool(
        "execute_sql",
        {"sql_query": "SELECT status, count(*) AS n FROM orders GROUP BY status ORDER BY status"},
    )
    assert not is_error(result), text(result)
    assert "| status" in text(result), text(result)
    query_id = structured(result)["query_id"]
    print(f"  tools: {names}; query {query_id}: {structured(result)['row_count']} rows")
    await named_query(tools, session)
    if not full:
        return
    page = await session.call_tool("read_query_result", {"query_id": query_id, "limit": 1})
    assert not is_error(page), text(page)
    refused = await session.call_tool("execute_sql", {"sql_query": "DROP TABLE orders"})
    assert is_error(refused), text(refused)
    resources = await session.list_resources()
    uris = [str(r.uri) for r in resources.resources]
    assert "nao://shop/orders" in uris, uris
    read = await session.read_resource("nao://shop/orders")
    assert "status" in read.contents[0].text
    print(f"  {len(uris)} table resources; write refused as a tool error")


async def named_query(tools, session: ClientSession) -> None:
    """The config file's orders_by_status: listed with its schema, called, not injectable."""
    tool = next(t for t in tools.tools if t.name == "orders_by_status")
    schema = attr(tool, "input_schema", "inputSchema")
    assert schema["required"] == ["status"], schema
    assert schema["properties"]["status"]["type"] == "string", schema
    assert schema["properties"]["limit"] == {
        "type": "integer",
        "description": "How many orders to return.",
        "default": 20,
    }, schema
    assert schema.get("additionalProperties") is False, schema
    result = await session.call_tool("orders_by_status", {"status": "shipped", "limit": 3})
    assert not is_error(result), text(result)
    assert structured(result)["row_count"] == 3, structured(result)
    assert "WHERE o.status = 'shipped'" in structured(result)["executed_sql"], structured(result)
    assert "| status" in text(result), text(result)
    default_limit = await session.call_tool("orders_by_status", {"status": "delivered"})
    assert structured(default_limit)["row_count"] == 20, structured(default_limit)
    injected = await session.call_tool("orders_by_status", {"status": "x' OR '1'='1"})
    assert not is_error(injected), text(injected)
    assert structured(injected)["row_count"] == 0, structured(injected)
    missing = await session.call_tool("orders_by_status", {"limit": 3})
    assert is_error(missing) and "status" in text(missing), text(missing)
    revenue = await session.call_tool("revenue_by_country", {"channel": "web"})
    assert not is_error(revenue) and structured(revenue)["row_count"] > 0, text(revenue)
    print("  named query orders_by_status: schema, call, default, injection attempt found nothing")


async def over_stdio(binary: str, config: str) -> None:
    params = StdioServerParameters(command=binary, args=["--config", config, "--log-level", "warn"])
    async with stdio_client(params) as streams:
        async with ClientSession(streams[0], streams[1]) as session:
            await exercise(session, full=True)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def over_http(binary: str, config: str) -> None:
    port = free_port()
    server = subprocess.Popen(
        [binary, "--config", config, "--log-level", "warn", "--http", f"127.0.0.1:{port}"]
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline or server.poll() is not None:
                    raise RuntimeError("the HTTP server did not start")
                time.sleep(0.2)
        async with streamable_http_client(f"http://127.0.0.1:{port}/mcp") as streams:
            async with ClientSession(streams[0], streams[1]) as session:
                await exercise(session, full=False)
    finally:
        server.terminate()
        server.wait(timeout=30)


async def main() -> None:
    binary, config = sys.argv[1], sys.argv[2]
    print("python mcp client over stdio:")
    await over_stdio(binary, config)
    print("python mcp client over streamable HTTP:")
    await over_http(binary, config)
    print("python interop: ok")


if __name__ == "__main__":
    asyncio.run(main())
