"""What an agent loop costs, and four ways to pay less (built in notebook 10).

Every call of the loop resends the whole history, so input tokens grow with every turn and the
total grows with the square of the number of turns. Four levers:

- **parallel tool calls**: fewer turns, so the history is resent fewer times. The model makes
  several calls in one turn unless its instructions or `disable_parallel_tool_use` forbid it;
  the loop answers them all in one message;
- **truncation**: a tool result is resent on every later turn; keeping it short saves it many
  times over (`run_agent(..., result_limit=1000)`, which cuts head and tail with
  `course_helpers.plumbing.truncate`). Cutting blindly can lose what matters: `keep_what_matters` cuts a
  log by meaning instead;
- **prompt caching**: `with_cache()` puts `cache_control` breakpoints on the last tool, the end
  of the system prompt and the moving end of the conversation, so each call reads the previous
  call's prefix from the cache (`run_agent(..., prepare=with_cache)`);
- **a budget**: `Budget` is a terminal condition of the loop, like the step limit: a wrapper
  of its `sample` seam (`run_agent(..., wrap_sample=Budget(limit=40_000))`). It estimates the next call as the last one
  plus the growth between the last two, and stops before a call that would overspend.

One module per job, in the order notebook 10 builds them:

- `usage`: reading a call's usage; `prompt_tokens` is every input token (step 2);
- `shorten`: `keep_what_matters`, the guard against blind truncation (step 4);
- `caching`: `with_cache` (step 5);
- `pricing`: the documented multipliers, `billed_input`, `billed` (step 5), `cache_floor`
  (step 6). Costs are in *billed-equivalent input tokens*: what you pay, in units of one
  uncached input token;
- `budget`: `Budget` (step 7);

The tables and plots the notebook reads its runs with are course machinery:
`course_helpers.measurement.cost_tables`.

The long task the notebook measures (the delivery logs of last week's 22 shipments, the audit
tools and the team's handbook) is in `course_helpers.fixtures.delivery_audit`.
"""

from course_helpers.lessons.cost.budget import Budget, OverBudget
from course_helpers.lessons.cost.caching import as_blocks, plain_block, with_cache
from course_helpers.lessons.cost.pricing import (
    CACHE_READ,
    CACHE_WRITE_1H,
    CACHE_WRITE_5M,
    OUTPUT_WEIGHT,
    billed,
    billed_input,
    cache_floor,
)
from course_helpers.lessons.cost.shorten import keep_what_matters
from course_helpers.lessons.cost.usage import prompt_tokens, token_count

__all__ = [
    "CACHE_READ",
    "CACHE_WRITE_1H",
    "CACHE_WRITE_5M",
    "OUTPUT_WEIGHT",
    "Budget",
    "OverBudget",
    "as_blocks",
    "billed",
    "billed_input",
    "cache_floor",
    "keep_what_matters",
    "plain_block",
    "prompt_tokens",
    "token_count",
    "with_cache",
]
