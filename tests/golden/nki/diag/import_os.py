import math
import os
