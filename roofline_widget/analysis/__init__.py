"""Analyses of roofline points: ceilings from likwid-bench, memory levels, checks, rank spread, comparison."""
