"""Benchmark of the rules layer and the referee: the same as `arena bench`.

Run: python benchmarks/game_layers.py [--seconds 1 --repeat 5]
"""

from arena.cli.bench import bench

if __name__ == "__main__":
    bench()
