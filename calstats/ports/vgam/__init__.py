"""Ports of R's VGAM package: ``vglm`` with the ``multinomial`` family."""
