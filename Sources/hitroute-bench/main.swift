print("hitroute-bench")
