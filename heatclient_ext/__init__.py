"""Stack breakpoints for OpenStack Heat (the client half)."""
