"""Mark layers of the widget beside its points: memory levels, baseline arrows, rank spread."""
