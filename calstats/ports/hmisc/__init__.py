"""Ports of R's Hmisc package: ``rcspline.eval`` and ``cut2``."""
