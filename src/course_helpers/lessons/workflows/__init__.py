"""One job built four ways (notebook 09): a prompt chain, a router, orchestrator–workers and an
agent, all on the same support desk, under its refund rule and within the same budget, measured
on the same tickets.

What you build, each module saved from notebook 09 (a test keeps them identical to its cells):

    steps         the shared budget, and the pieces the workflows share: the triage form, the
                  lookups in code, a writer
    chain         way 1, a prompt chain           router        way 2, a router and its handlers
    orchestrator  way 3, orchestrator–workers     agent         way 4, the agent loop on the desk
    scoring       success judged by code, and the latency model used offline

Course machinery, which notebook 09 uses and explains but you do not build, is in
`course_helpers.measurement`: `workflows` (runs every case through every approach, the tables)
and `workflow_plots` (the chart). The shop itself (`Desk`, its
records and refund rule) and the tickets are in `course_helpers.fixtures.support_desk`.
"""
