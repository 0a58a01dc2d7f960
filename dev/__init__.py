"""Developer tools: generators that keep hand-kept lists out of the code (run by `make`)."""
