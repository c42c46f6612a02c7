"""Provider tests: codecs, wire servers, conformance, retries, scale."""
