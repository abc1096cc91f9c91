"""Static roofline figures: plot_roofline (matplotlib file or bqplot figure), its layers and output files."""
