shape = (128, 512)
rows = shape[2]
