data = open('/etc/passwd').read()
