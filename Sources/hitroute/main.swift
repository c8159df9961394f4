print("hitroute")
