with nki.compiler.no_reorder():
    pass
with a as x, b as (y, z):
    pass
with (c as u, d):
    pass
