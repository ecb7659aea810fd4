"""Reference bots for Kifu, written against kifu_client: a random bot and the arena that runs them."""
