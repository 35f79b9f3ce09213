// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/**
 * A minimal single-owner smart account for tests of smart-account payers (spec 5.2): ERC-1271
 * `isValidSignature` accepts the owner's ECDSA signature of the hash, and `execute` lets the owner
 * act. Deployed through `SmartAccountFactory` with CREATE2, so an ERC-6492 signature can name the
 * factory call that creates it.
 */
contract SmartAccount {
    address public immutable owner;

    constructor(address owner_) {
        owner = owner_;
    }

    function isValidSignature(bytes32 hash, bytes calldata signature) external view returns (bytes4) {
        if (signature.length != 65) return 0xffffffff;
        bytes32 r = bytes32(signature[0:32]);
        bytes32 s = bytes32(signature[32:64]);
        uint8 v = uint8(signature[64]);
        if (v < 27) v += 27;
        if (uint256(s) > 0x7FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF5D576E7357A4501DDFE92F46681B20A0) return 0xffffffff;
        address signer = ecrecover(hash, v, r, s);
        return signer != address(0) && signer == owner ? bytes4(0x1626ba7e) : bytes4(0xffffffff);
    }

    function execute(address to, uint256 value, bytes calldata data) external returns (bytes memory) {
        require(msg.sender == owner, "SmartAccount: not the owner");
        (bool ok, bytes memory ret) = to.call{value: value}(data);
        require(ok, "SmartAccount: call failed");
        return ret;
    }

    receive() external payable {}
}

contract SmartAccountFactory {
    function createAccount(address owner, bytes32 salt) external returns (address account) {
        account = getAddress(owner, salt);
        if (account.code.length > 0) return account;
        new SmartAccount{salt: salt}(owner);
    }

    function getAddress(address owner, bytes32 salt) public view returns (address) {
        bytes32 initCodeHash = keccak256(abi.encodePacked(type(SmartAccount).creationCode, abi.encode(owner)));
        return address(uint160(uint256(keccak256(abi.encodePacked(bytes1(0xff), address(this), salt, initCodeHash)))));
    }
}
