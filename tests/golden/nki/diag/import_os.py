import math
import os


def cwd_length():
    return len(os.getcwd())


cwd_length()
