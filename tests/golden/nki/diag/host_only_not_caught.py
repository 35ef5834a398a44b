import subprocess


def probe():
    try:
        return subprocess.run(["id"])
    except Exception:
        return None


probe()
