"""Sums engines: per-(rank, region, device) sums over threads, one engine per kind of input."""
