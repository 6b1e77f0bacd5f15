"""The Streamlit app's package: pages (``ui/pages``), widgets and the testable journey logic."""
