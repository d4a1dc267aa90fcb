import GeofenceEngine
print("bench")
