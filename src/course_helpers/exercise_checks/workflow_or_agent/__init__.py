"""Course machinery (exercise checks): checks for notebook 09, Choose between a workflow and an
agent.

The lists below are the whole of what 09's three exercises must do; each check needs its own
made-up cases (replacement chains, measurements no real run gives, a desk with a replaced order).

`check_with_replacements(with_replacements)`, the arrow the chain lacks, enforces:
1. every order it is given comes back, in the same order, each followed by its replacements,
   in a new list (the list it is given is left as it came);
2. it follows a chain of replacements as far as it goes (not one hop only);
3. it makes at most `max_hops` lookups for each order's chain;
4. it never returns, or looks up, the same order twice (two orders replaced by the same one, a
   chain that loops back);
5. a replacement that does not exist is left out, without an exception, and the orders after it
   still come back;
6. an order without `replaced_by` costs no lookup;
7. plugged into the chain of notebook 09, it makes U1 and U2 right.

`check_choose(choose)`, choosing from measurements, enforces:
1. it returns a dict with one entry per case name found in the results;
2. each entry is the approach with the lowest cost among those that solved the case;
3. cost is input tokens plus five times output tokens (not input alone, not the number of calls:
   made-up results where the approach with the fewest calls costs the most; a weight of 4 or of
   6 for output tokens picks another approach than 5 does);
4. an approach that failed is never chosen, however cheap, and a failed agent does not send a
   case that a workflow solved to a person;
5. every approach counts (not the router alone, and the agent when it is the cheapest that
   solved it), and the decision comes from the results, not from a case's name or kind;
6. a case nothing solved goes to "person".

`check_hybrid(hybrid)`, a router in front of the agent, enforces:
1. it returns an Attempt whose usage counts every request it sent (the agent's too);
2. on the tickets the router's handlers answer (P1-P5, U3) it makes two calls (one triage, one
   handler) and never runs the agent;
3. when an order in question was replaced (U1, U2) it runs the agent, and every case it is run
   on comes out right; only the orders in question count (P5, the kettle, on a desk where
   another of the customer's orders was replaced, takes the fixed path); when it runs the
   agent, the Attempt holds the agent's trace too;
4. the decision comes from the looked-up orders, not the ticket's words (a desk where A1001 was
   replaced sends "Where is my order #A1001?" to the agent);
5. nor from the words of a reply: a ticket about A1010, whose record names the order it replaced,
   takes the fixed path although the handler's reply says "replacement", and a refund ticket on
   the replaced A1007, whose handler's reply never says it, goes to the agent;
6. nor from any wording at all: run again with every handler's reply rewritten (the agent's
   turns untouched), the tickets that must take the fixed path get a reply full of the words a
   hybrid might watch for (replacement, refused, no rule, lost, a colleague...), and the tickets
   that need the agent get a reply with none of them; each decision must stay the same;
7. a ticket no handler fits goes to the agent;
8. where the data needs the agent it goes there straight after the lookups: one triage call and
   the agent's calls, no handler's call, and no refund asked of the desk except by the agent's
   own refund tool calls (a handler run first would ask for refunds before the agent starts).

The checks' code, one job a module:

- `replacements`: exercise 09.1, `with_replacements`: replacement chains, hop limits, loops and
  missing orders.
- `choose`: exercise 09.2, `choose`: the cheapest approach that solved each case, from made-up
  measurements.
- `hybrid_desk`: exercise 09.3's tickets, rewording client and the signs that the agent ran.
- `hybrid`: exercise 09.3, `check_hybrid`: a router in front of the agent, decided from the data.
"""

from __future__ import annotations

from course_helpers.exercise_checks.workflow_or_agent.choose import check_choose
from course_helpers.exercise_checks.workflow_or_agent.hybrid import check_hybrid
from course_helpers.exercise_checks.workflow_or_agent.replacements import check_with_replacements

__all__ = ["check_with_replacements", "check_choose", "check_hybrid"]
