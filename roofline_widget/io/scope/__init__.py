"""Reading scope-profiler results.

ProfilingResults objects, HDF5 files (direct and through h5py), the cache, checks.
"""
