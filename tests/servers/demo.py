"""mcpvend's demo server: a small itinerary planner whose tools exercise what generation must handle.

It has a tool with an outputSchema, nested objects, arrays of objects, enums, optional
parameters with defaults, a property named like a Python keyword (`from`), and a tool
whose name holds `-` and `.`. Its answers are deterministic, so tests can compare them.
Run it over stdio: `python tests/servers/demo.py`; over the legacy HTTP+SSE transport (2024-11-05):
`python tests/servers/demo.py --sse PORT`, at http://127.0.0.1:PORT/sse.
"""

from __future__ import annotations

from typing import Annotated, Literal

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations
from pydantic import BaseModel, Field

server = MCPServer(
    name="mcpvend-demo",
    version="1.0.0",
    instructions="Plan trips: convert temperatures, price itineraries and look up airports.",
)

AIRPORTS = {
    "CDG": ("Paris Charles de Gaulle", "FR"),
    "JFK": ("New York John F. Kennedy", "US"),
    "LHR": ("London Heathrow", "GB"),
    "NRT": ("Tokyo Narita", "JP"),
}


class Traveler(BaseModel):
    name: str = Field(description="Full name as on the passport.")
    age: int = Field(ge=0, le=130, description="Age in years on the day of travel.")


class Leg(BaseModel):
    origin: str = Field(alias="from", description="IATA code of the departure airport.")
    to: str = Field(description="IATA code of the arrival airport.")
    cabin: Literal["economy", "premium", "business"] = Field(default="economy", description="Cabin class.")


class Quote(BaseModel):
    currency: str = Field(description="ISO 4217 currency code.")
    total: float = Field(description="Total price for all travelers and legs.")
    legs: int = Field(description="How many legs were priced.")
    notes: list[str] = Field(description="Remarks a traveler should read.")


@server.tool(
    title="Convert temperature",
    annotations=ToolAnnotations(readOnlyHint=True, idempotentHint=True, openWorldHint=False),
)
def convert_temperature(value: float, to: Literal["celsius", "fahrenheit", "kelvin"] = "celsius") -> str:
    """Convert a temperature given in Celsius to another unit."""
    converted = {"celsius": value, "fahrenheit": value * 9 / 5 + 32, "kelvin": value + 273.15}[to]
    return f"{converted:.2f} {to}"


@server.tool(
    title="Price an itinerary",
    annotations=ToolAnnotations(readOnlyHint=True, openWorldHint=False),
)
def price_itinerary(
    travelers: Annotated[list[Traveler], Field(description="Everyone on the booking.", min_length=1)],
    legs: Annotated[list[Leg], Field(description="Flights in travel order.", min_length=1)],
    currency: Literal["EUR", "USD", "JPY"] = "EUR",
    insurance: bool = False,
) -> Quote:
    """Price a multi-leg itinerary for a group of travelers.

    Children under 12 travel at half price. Prices are illustrative, not offers.
    """
    per_leg = {"economy": 100.0, "premium": 180.0, "business": 400.0}
    total = 0.0
    for traveler in travelers:
        factor = 0.5 if traveler.age < 12 else 1.0
        total += sum(per_leg[leg.cabin] for leg in legs) * factor
    if insurance:
        total += 25.0 * len(travelers)
    rate = {"EUR": 1.0, "USD": 1.1, "JPY": 160.0}[currency]
    notes = [f"{leg.origin}->{leg.to} in {leg.cabin}" for leg in legs]
    return Quote(currency=currency, total=round(total * rate, 2), legs=len(legs), notes=notes)


@server.tool(
    name="airports.find-by-code",
    title="Find airport",
    annotations=ToolAnnotations(readOnlyHint=True, idempotentHint=True, openWorldHint=False),
)
def find_airport(code: Annotated[str, Field(pattern="^[A-Z]{3}$", description="IATA code, e.g. CDG.")]) -> str:
    """Look up an airport by its three-letter IATA code."""
    if code not in AIRPORTS:
        raise ToolError(f"unknown airport code {code}")
    name, country = AIRPORTS[code]
    return f"{code}: {name} ({country})"


@server.tool(
    title="Cancel booking",
    annotations=ToolAnnotations(destructiveHint=True, idempotentHint=True, openWorldHint=False),
)
def cancel_booking(reference: str, reason: str | None = None, notify: bool = True) -> str:
    """Cancel a booking by its reference. This cannot be undone."""
    return f"cancelled {reference}" + (f" ({reason})" if reason else "") + (", traveler notified" if notify else "")


if __name__ == "__main__":
    import sys

    if sys.argv[1:2] == ["--sse"]:
        server.run("sse", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        server.run("stdio")
