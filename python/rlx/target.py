"""rlx.target: targets are names for rlx's one CPU backend ("llvm", "c", "llvm -mcpu=...")."""


class Target:
    def __init__(self, target, host=None):
        text = target if isinstance(target, str) else str(target)
        self.kind = text.split()[0] if text.split() else text
        self.text = text
        if self.kind not in ("llvm", "c", "cpu"):
            raise ValueError("rlx builds for the CPU: target %r is not supported (use \"llvm\" or \"c\")" % text)

    def __str__(self):
        return self.text

    def __repr__(self):
        return "Target(%r)" % self.text
