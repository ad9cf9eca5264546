"""A careless server: its tool asks the user a question quoting the credential it was configured with.

The value of ACCOUNT_TOKEN (its configured secret) is in the question's message and in a
description of its requested schema; the tool list quotes nothing, so the server locks. Run it
over stdio: `python asks_secret.py`.
"""

from __future__ import annotations

import os
from typing import Annotated

from mcp.server.elicitation import AcceptedElicitation, ElicitationResult
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.resolve import Elicit, Resolve
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


if __name__ == "__main__":
    server.run("stdio")
