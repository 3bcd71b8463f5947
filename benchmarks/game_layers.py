"""Benchmark of the rules layer and the referee: the same as `arena bench`, with OpenSpiel's
liars_dice as the outside baseline when pyspiel is installed (`pip install -e '.[bench]'`).

Run: python benchmarks/game_layers.py [--seconds 1 --repeat 5] [--quick] [--breakdown]
"""

from arena.cli.bench import bench

if __name__ == "__main__":
    bench()
