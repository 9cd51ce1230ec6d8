"""Tool definitions that several test modules send to the course model, written once."""

from __future__ import annotations

# The course's plainest tool: one required argument. The weather scenario answers it.
GET_WEATHER = {
    "name": "get_weather",
    "description": "Current weather for a city.",
    "input_schema": {
        "type": "object",
        "properties": {"city": {"type": "string"}},
        "required": ["city"],
    },
}
# The same tool saying it takes one city: two cities asked for are two calls, in parallel.
GET_WEATHER_ONE_CITY = {**GET_WEATHER, "description": "Current weather for one city."}
