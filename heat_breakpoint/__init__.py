"""Stack breakpoints for OpenStack Heat (the server half).

The breakpoint model lives in :mod:`heat_breakpoint.model.breakpoints` and is
shared with the client half (:mod:`heatclient_ext`).
"""
