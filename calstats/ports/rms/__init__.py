"""Ports of R's rms package (6.5-0): ``lrm.fit``."""
