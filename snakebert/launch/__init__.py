"""A training job's launch: the plan made when the workflow is read, a SLURM allocation's nodes, and the launchers
over mpirun and torchrun with their part in a stop."""
