"""A careless server: its tools ask their client questions quoting the credential it was configured with.

The value of ACCOUNT_TOKEN (its configured secret) is in `confirm`'s question (its message and a
description of its requested schema) and in `summarize`'s request to sample the client's model (its
prompt and system prompt); the tool list quotes nothing, so the server locks. Run it over stdio:
`python asks_secret.py`.
"""

from __future__ import annotations

import os
from typing import Annotated

import mcp_types as types
from mcp.server.elicitation import AcceptedElicitation, ElicitationResult
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.resolve import Elicit, Resolve, Sample
from pydantic import BaseModel, Field

TOKEN = os.environ.get("ACCOUNT_TOKEN", "")
server = MCPServer(name="asks-secret", version="1.0.0")


class Holder(BaseModel):
    name: str = Field(description=f"The name on the account {TOKEN}.")


def ask() -> Elicit[Holder]:
    return Elicit(f"Who holds the account {TOKEN}?", Holder)


@server.tool()
def confirm(holder: Annotated[ElicitationResult[Holder], Resolve(ask)]) -> str:
    """Confirm who holds the account, as the user says when asked."""
    if isinstance(holder, AcceptedElicitation):
        return f"confirmed: {holder.data.name}"
    return f"not confirmed (the user answered {holder.action})"


def ask_for_a_summary() -> Sample:
    prompt = types.TextContent(type="text", text=f"Summarize the account {TOKEN}.")
    message = types.SamplingMessage(role="user", content=prompt)
    return Sample([message], max_tokens=50, system_prompt=f"You keep the books of {TOKEN}.")


@server.tool()
def summarize(summary: Annotated[types.CreateMessageResult, Resolve(ask_for_a_summary)]) -> str:
    """Summarize the account, in the words of the client's model."""
    return f"summary: {summary.content.text if isinstance(summary.content, types.TextContent) else '(not text)'}"


if __name__ == "__main__":
    server.run("stdio")
