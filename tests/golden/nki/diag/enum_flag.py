import enum


class Access(enum.Flag):
    READ = 1
    WRITE = 2
