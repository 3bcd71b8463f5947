"""The one ordered map of games to results: in this process, or on a pool of worker
processes that survives a worker's death. It knows nothing of the game."""
