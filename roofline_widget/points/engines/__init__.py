"""The sums engines: one :class:`~.source.RegionSource` per run, one thread reduction, one dispatcher."""
