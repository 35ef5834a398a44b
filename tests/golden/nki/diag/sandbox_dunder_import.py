os = __import__('os')
