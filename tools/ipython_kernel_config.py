# IPython kernel configuration installed into the project's .venv by `make setup`
# (as .venv/etc/ipython/ipython_kernel_config.py, read by every kernel the venv starts).
#
# Kernels started by nbval and `jupyter execute` listen on loopback TCP ports. ipykernel
# warns at every start that TCP traffic is unencrypted; on this single-user loopback
# setup the warning carries no information and would repeat once per chapter in CI.
# The filter drops exactly that message; every other kernel warning still shows.
import logging


class _DropLoopbackTcpWarning(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return (
            "Kernel is running over TCP without encryption" not in record.getMessage()
        )


logging.getLogger("IPKernelApp").addFilter(_DropLoopbackTcpWarning())
