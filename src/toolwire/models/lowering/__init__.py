"""Per-provider lowering: pure functions from toolwire's tools and messages to each provider's wire
format and back. They do no I/O, so they are tested without any client or network."""
