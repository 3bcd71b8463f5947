"""`arena compare`: duplicate groups on shared seeds, the sequential tests behind the
verdict, and its stopping bounds."""
