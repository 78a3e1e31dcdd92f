"""tools/longhorn-release: lhc's Longhorn data from the upstream sources (see that script)."""
