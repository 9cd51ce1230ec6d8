"""Course machinery: run what you built on many inputs and show the numbers.

workflows        notebook 09's harness: every approach on the same tickets, one table
workflow_plots   notebook 09's charts
cost_tables      notebook 10's tables and charts of tokens per turn
"""
