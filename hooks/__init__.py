"""Webhooks: signed HTTP notices of an account's game events (game_started, your_turn, window_opened, game_ended)."""
