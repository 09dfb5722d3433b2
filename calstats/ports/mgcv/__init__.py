"""Ports of R's mgcv package (1.8-41): ``gam`` with ``s()`` bases and the ``cox.ph`` family."""
