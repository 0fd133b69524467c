"""The Croktile frontend: preprocess, split, parse, check and lower ``__co__`` code."""
