f = getattr([], '__class__')
