"""The report rendered: index.html, summary.md, badges and charts, and the report folder written from
one report (outputs). Plain Python over the model (reports.views); nothing here reads results."""
