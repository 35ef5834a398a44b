# A limit is not an exception a kernel can catch: the run ends however it is wrapped.
try:
    while True:
        pass
except Exception:
    print("caught")
except:
    print("caught by a bare except")
finally:
    print("finally runs")
