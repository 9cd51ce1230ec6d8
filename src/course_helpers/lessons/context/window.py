"""See the context window fill (built in notebook 12, step 2).

`context_window(client, model)` reads the window from the API's model list, `token_counter`
asks the count_tokens endpoint how big a request would be, and `Window` wraps the loop's
`sample` seam to record the size of every request just before it is sent.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import anthropic

# ---- Everything below is written by `make promote` from the notebook cells marked
# ---- `# Saved in course_helpers.lessons.context.window`. Edit those cells, then run `make promote`.


# From notebooks/12_keep_the_context_in_bounds.ipynb
def context_window(client: anthropic.Anthropic, model: str) -> int | None:
    """The model's context window in input tokens, from the API's model list.

    None when the server does not list its models (some compatible servers).
    """
    try:
        return client.models.retrieve(model).max_input_tokens
    except anthropic.APIError:
        return None


def token_counter(client: anthropic.Anthropic, **settings) -> Callable[[list], int]:
    """`count(messages)`: how many input tokens a request with this history would be.

    `settings` are the request's other fields that take room: model, system, tools. Each count
    is one call to the count_tokens endpoint: it runs no model and costs nothing.
    """

    def count(messages: list) -> int:
        return client.messages.count_tokens(**settings, messages=messages).input_tokens

    return count


@dataclass
class Window:
    """A wrapper of the loop's `sample` seam that measures each request before it is sent.

    `run_agent(..., wrap_sample=Window(count))`; afterwards `sizes` holds one count a call.
    """

    count: Callable[[list], int]
    sizes: list[int] = field(default_factory=list)

    def __call__(self, sample):
        def sample_measured(messages, **changes):
            self.sizes.append(self.count(messages))
            return sample(messages, **changes)

        return sample_measured
