#include <fstream>
#include <iostream>
#include <sstream>

#include "json.hpp"

// jsoncheck FILE: validates a JSON document and prints it back in canonical form.
int main(int argc, char** argv) {
    if (argc != 2) { std::cerr << "usage: jsoncheck FILE\n"; return 2; }
    std::ifstream in(argv[1]);
    std::stringstream buffer;
    buffer << in.rdbuf();
    try {
        std::cout << json::serialize(json::parse(buffer.str())) << "\n";
    } catch (const json::ParseError& e) {
        std::cerr << argv[1] << ": " << e.what() << "\n";
        return 1;
    }
    return 0;
}
