"""Certification of one implementation: a bundle a vendor hands over and anyone can verify.

`./mqconform certify --endpoint NAME=URL` runs every spec against the vendor's broker with no
expectations file and writes one folder (certify/bundle.py); `./mqconform verify BUNDLE`
recomputes the certificate from the bundle's rows and checks every digest and the suite version
(certify/verify.py). What a certificate says is decided in one place, certify/certificate.py,
with the report's own verdict code (reports/views/model.py `spec_verdicts`).
"""
