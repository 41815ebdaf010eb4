import ArgumentParser
@main struct PGNLSP: ParsableCommand {}
