"""The engine half: the lifecycle plugin and the seam into Heat's walk."""
