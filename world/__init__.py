"""Static world data: the campus model, its generator and importers."""
